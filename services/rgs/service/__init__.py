"""rgs.service: the use cases (play, back office, reconciler) over the engine and the ports."""
