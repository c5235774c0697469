"""Whether a text could hold anything the secret scrubber replaces, decided without importing
it (issue 24: a refused question is scrubbed before it is logged, and `kb route` and `kb boot`
must not pay for the scrubber's import and patterns when the question could not hold a secret).

Rules of this module:
- `could_hold_secret(text)` is False only when no rule of kb.pure.sessions.scrub can match `text`:
  every rule and every provider shape names strings it cannot match without (`needs`), and `NEEDS`
  and `FOLDED_NEEDS` hold, for each of those, a string it contains. A test holds them to
  kb.pure.sessions.scrub's rules and shapes, so a rule added there without its need here fails.
- `FOLDED_NEEDS` are looked for in the lower-cased text (the rules that match in any case).
"""

from __future__ import annotations

NEEDS = (
    "%3", ",", "--", "-p", "-u", ".", "1//0", ":", "</", "=", "A3-", "A3T",
    "AAAAAAAAAAAAAAAAAAAAAA", "ABIA", "ACCA", "AGE-SECRET-KEY-1", "AIza", "AKCp", "AKIA",
    "API-", "AQVN", "ASIA", "ATATT", "ATBB", "ATCTT", "CCIPAT_", "CFPAT-", "CLOJARS_", "EAA",
    "FLWSECK", "GOCSPX-", "GR1348941", "HRKU-", "LS0tLS1CRUdJTi", "LS0tLS1iZWdpbi",
    "LS0tLSBCRUdJTi", "LTAI", "NRAA-", "NRAK-", "NRII-", "NRIQ-", "NRJS-", "NRSP-", "PMAK-",
    "PuTTY-User-Key-File-", "Q~", "SK", "UHVUVFktVXNlci1LZXktRmlsZS", "_v1_", "access-",
    "access_token$", "aio_", "api-", "api_org_", "bkua_", "cmVmdGtuOjAxOj", "dapi", "duffel_",
    "eyJ", "figd_", "fm1", "fm2", "fo1_", "gho_", "ghp_", "ghr_", "ghs_", "ghu_", "glagent-",
    "glc_", "glcbt-", "gldt-", "glft-", "glimt-", "gloas-", "glptt-", "glrt-", "glsa_",
    "glsoat-", "hf_", "ico-", "key-", "lin_", "lsv2_", "nfp_", "npm_", "ntn_", "oy2", "pat",
    "pk_", "pnu_", "pplx-", "pul-", "pypi-AgE", "r8_", "rdme_", "re_", "rk_", "rnd_",
    "rubygems_", "sbp_", "sdk-", "secret_", "sgp_", "shippo_", "shp", "sk-", "sk_", "sntry",
    "sq0", "sqa_", "sqp_", "squ_", "tfp_", "whsec_", "xai-", "xapp-", "xkeysib-", "xox",
    "xprv", "y0_", "y1_", "y2_", "y3_",
)  # fmt: skip
FOLDED_NEEDS = (
    "---- begin", "----begin", "bearer", "config", "contrase", "kennwort", "pass", "pin",
    "senha", "set",
)  # fmt: skip


def could_hold_secret(text: str) -> bool:
    if any(n in text for n in NEEDS):
        return True
    lowered = text.lower()
    return any(n in lowered for n in FOLDED_NEEDS)
