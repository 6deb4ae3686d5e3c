"""rgs.recall: an operator's recall of a round, read back and checked whole (``rgs verify``).

* :mod:`rgs.recall.read` — the recall's forms (a solo round's steps, a table round's typed
  events, an earlier release's ``events_json``) read into the engine's events;
* :mod:`rgs.recall.check` — the round replayed through the rules on the card order of its
  seeds, from the recorded bets and decisions, and compared with everything the recall says;
* :mod:`rgs.recall.words` — events and the first difference in words a player reads;
* :mod:`rgs.recall.verify` — a recall document's rounds, each checked for its seeds and whole:
  what the command prints.

The seeds and the card order are :mod:`rgs.rng.fair`'s, and :mod:`rgs.rng.verify` checks them
(the commitment, the order of the dealt cards): the certified RNG's part needs nothing of this
package.
"""
