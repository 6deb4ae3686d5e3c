"""Generated protobuf code: do not edit; run `python -m rgs.protogen` after changing a proto.

One package per contract under ``proto/rgs/``: ``blackjack.v1`` (the game client's API),
``operator.v1`` (the operator's API) and ``wallet.v1`` (the wallet an operator implements). The
proto packages keep their names (``rgs.blackjack.v1`` ...) on the wire; only the Python modules
live here. The sandbox wallet's control API is generated into ``sandbox_wallet.generated``.
"""
