"""Generated protobuf code: do not edit; run `python -m rgs.protogen` after changing a proto.

``sandbox.v1`` is the sandbox wallet's control API (``proto/rgs/sandbox/v1/sandbox.proto``:
fault injection and demo players), which only the sandbox wallet and its tests use.
"""
