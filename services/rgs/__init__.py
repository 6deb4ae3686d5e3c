"""Remote game server for casino blackjack."""

__version__ = "0.1.0"
