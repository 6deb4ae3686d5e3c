"""rgs.math."""
