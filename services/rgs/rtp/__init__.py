"""RTP monitoring that tells an engine fault from the players' choices (docs/rtp-monitoring.md).

:mod:`rgs.rtp.expected` values each settled round given the decisions its players took;
:mod:`rgs.rtp.check` checks each settled hand and dealer draw against the analysis' own model of
the rules; :mod:`rgs.rtp.stats` aggregates; :mod:`rgs.rtp.worker` runs it all off the hot path
from the journal.
"""
