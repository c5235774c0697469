"""One base's SQLite database at `<base>/.kb/index.db` (being split into one module per job)."""

from kb.io.store.database import *  # noqa: F403
from kb.io.store.headers import *  # noqa: F403
from kb.io.store.headers import _stored  # noqa: F401
from kb.io.store.ranking import *  # noqa: F403
from kb.io.store.schema import *  # noqa: F403
from kb.io.store.textreader import *  # noqa: F403
from kb.io.store.textwriter import *  # noqa: F403
