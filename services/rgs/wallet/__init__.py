"""rgs.wallet."""
