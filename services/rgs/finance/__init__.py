"""The operator's back office: the money movements listing, the reconciliation against a
wallet's export and the GGR report (docs/backoffice.md).

* :mod:`rgs.finance.movements` — one operator's movements between two times, page by page
  with a resumable cursor, from the journal's outbox;
* :mod:`rgs.finance.wallet_export` — the wallet export format (CSV and JSON), read and written;
* :mod:`rgs.finance.reconcile` — the comparison of the two, every mismatch named (pure);
* :mod:`rgs.finance.ggr` — gross gaming revenue per brand, variant, table, day and currency
  (pure);
* :mod:`rgs.finance.office` — the finance RPCs' use cases: the request checked, then the read.
"""
