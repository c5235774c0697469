"""`kb promote` and `kb rejections`, and the real effects a promotion run has."""
