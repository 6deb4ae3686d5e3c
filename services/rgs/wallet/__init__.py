"""rgs.wallet: the wallet port (:mod:`rgs.wallet.port`, with the transaction ids) and its two
adapters, gRPC (:mod:`rgs.wallet.grpc_wallet`) and signed HTTP/JSON
(:mod:`rgs.wallet.http_wallet`). Only ``bootstrap`` imports the adapters."""
