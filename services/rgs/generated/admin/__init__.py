"""Generated protobuf code: do not edit; run `python -m rgs.protogen`."""
