"""rgs.observability: metrics, tracing, structured logs and the decorators and listeners that
attach them to the ports; wired in by ``bootstrap`` and the command line, never imported from
below."""
