"""rgs.journal."""
