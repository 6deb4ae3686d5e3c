"""rgs.api: the gRPC edge — servicers, protobuf conversion, the one error table, the server."""
