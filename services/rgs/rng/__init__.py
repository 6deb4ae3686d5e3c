"""rgs.rng."""
