"""rgs.web_table: the reference web table's committed bundle (``static/``), built from ``web/table``
and served by the browser edge at ``/``."""
