"""Shared tables: several players from any operators at one table (issue 13).

``model`` holds the values (configuration, the table's state, commands), ``ports`` what the
use cases need from the journal, ``service`` the players' commands, ``clock`` the transitions
a table's deadlines drive, ``money`` each player's stakes and wins through their own outbox.
"""
