"""rgs.wallet: the wallet port (:mod:`rgs.wallet.port`) and its gRPC adapter
(:mod:`rgs.wallet.grpc_wallet`). Only ``bootstrap`` imports the adapter."""
