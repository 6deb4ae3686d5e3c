"""Software authentication (N.J.A.C. 13:69O-1.1 and 1.5, AGCO 6.1): the release manifest the
build writes (:mod:`~rgs.authenticity.manifest`), the comparison of the installed control
programs with it (:mod:`~rgs.authenticity.check`) and the replica's self-check at start and at
intervals (:mod:`~rgs.authenticity.selfcheck`). ``docs/authentication.md`` describes the whole.
"""
