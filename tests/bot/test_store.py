import threading

from bot.store import SqliteStore


def test_delivery_claimed_once_across_threads(tmp_path):
    store = SqliteStore(tmp_path / "s.db")
    wins = []

    def claim():
        wins.append(store.claim_delivery("d-1"))

    threads = [threading.Thread(target=claim) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wins.count(True) == 1


def test_survives_reopen(tmp_path):
    SqliteStore(tmp_path / "s.db").claim_delivery("d-9")
    store = SqliteStore(tmp_path / "s.db")
    assert store.claim_delivery("d-9") is False
    store.set_head("o/r", 1, "abc")
    assert SqliteStore(tmp_path / "s.db").head("o/r", 1) == "abc"
