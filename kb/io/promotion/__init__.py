"""The disk half of `kb promote`: the deposit offered, the lock marker, the rejections log."""
