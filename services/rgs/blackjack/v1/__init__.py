"""Generated protobuf package (see rgs.protogen)."""
