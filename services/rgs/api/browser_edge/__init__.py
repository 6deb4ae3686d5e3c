"""rgs.api.browser_edge: the browser edge. The Connect protocol (which also serves gRPC-Web
and gRPC) over HTTP/1.1 and h2c, on the same use cases as the native gRPC servicers
(:mod:`rgs.api.calls`), with CORS from the brands' ``web_origins`` and the reference web table
at ``/``."""
