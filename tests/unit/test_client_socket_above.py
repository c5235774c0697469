"""Which daemon a call from inside a fleet asks (kb.client.socket_above): the one started for
the nearest folder above the one the verb would open, by the socket's name alone."""

from __future__ import annotations

from pathlib import Path

from kb import client


def _socket_of(folder: Path, sockets: Path) -> Path:
    path = Path(client.socket_path(str(folder), str(sockets)))
    path.touch()
    return path


def test_the_nearest_folder_above_with_a_daemon_is_asked(tmp_path: Path) -> None:
    sockets = tmp_path / "sockets"
    sockets.mkdir()
    deep = tmp_path / "fleet" / "fleet" / "ada" / "knowledge"
    deep.mkdir(parents=True)
    assert client.socket_above(str(deep), str(sockets)) is None
    fleet_root = _socket_of(tmp_path / "fleet", sockets)
    assert client.socket_above(str(deep), str(sockets)) == str(fleet_root)
    base = _socket_of(tmp_path / "fleet" / "fleet" / "ada", sockets)
    assert client.socket_above(str(deep), str(sockets)) == str(base)
    # the folder's own socket is not "above" it: the caller asked that one first
    _socket_of(deep, sockets)
    assert client.socket_above(str(deep), str(sockets)) == str(base)


def test_a_folder_reached_through_a_link_is_looked_up_by_its_real_path(tmp_path: Path) -> None:
    sockets = tmp_path / "sockets"
    sockets.mkdir()
    (tmp_path / "fleet" / "ada").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "fleet" / "ada")
    fleet_root = _socket_of(tmp_path / "fleet", sockets)
    assert client.socket_above(str(tmp_path / "link"), str(sockets)) == str(fleet_root)


def test_no_socket_folder_means_no_daemon(tmp_path: Path) -> None:
    assert client.socket_above(str(tmp_path), str(tmp_path / "absent")) is None
