"""rgs.journal: the adapters behind the journal port (:class:`rgs.service.ports.Journal`) —
PostgreSQL (:mod:`rgs.journal.postgres`, with its numbered migrations) and an in-memory twin
for unit tests. Only ``bootstrap`` and the command line import them."""
