"""``rgs play``: a terminal client that plays rounds against a running RGS as a person would."""
