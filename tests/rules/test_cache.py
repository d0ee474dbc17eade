"""rules.cache.LRU: bounded, least recently used out first, safe under threads."""
import threading

import pytest

from rules.cache import LRU


def test_bounded_and_least_recently_used_goes_first():
    c = LRU(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1  # a is now the most recent
    c.put("c", 3)
    assert "b" not in c and c.get("a") == 1 and c.get("c") == 3 and len(c) == 2


def test_the_first_value_stored_wins():
    c = LRU(4)
    assert c.put("k", 1) == 1 and c.put("k", 2) == 1
    assert c.get_or_compute("k", lambda: 3) == 1
    assert c.get_or_compute("new", lambda: 4) == 4


def test_a_missing_key_gives_the_default_not_a_stored_none():
    c = LRU(2)
    assert c.get("x", "d") == "d"
    c.put("x", None)
    assert c.get("x", "d") is None


def test_size_must_be_positive():
    with pytest.raises(ValueError):
        LRU(0)


def test_threads_never_exceed_the_bound_or_lose_a_value():
    c = LRU(64)
    errors = []

    def work(t):
        try:
            for i in range(2000):
                k = (t * 7 + i) % 200
                v = c.get_or_compute(k, lambda k=k: k * 10)
                if v != k * 10:
                    errors.append((k, v))
        except Exception as err:  # pragma: no cover - would be the failure
            errors.append(err)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(c) <= 64


def test_the_module_caches_are_bounded_locked_lrus():
    from rules.scripts import parse, resolve
    from rules.serving import siblings

    for cache in (parse.SHARED_PARSES._lru, resolve._LABELS, resolve._POINTS, siblings._FEATURES):
        assert isinstance(cache, LRU) and cache.size >= 1


def test_shared_parses_under_threads_give_each_content_one_right_parse():
    from rules.scripts.parse import Script, SharedParses

    shared = SharedParses(size=8)
    sources = {f"s{i}.sh": f"export X{i}=1\nvllm serve m --tp {i}\n".encode() for i in range(12)}
    errors = []

    def work(t):
        try:
            for n in range(60):
                path = f"s{(t + n) % 12}.sh"
                got = shared.parse(path, sources[path])
                if not isinstance(got, Script) or got.text.encode() != sources[path]:
                    errors.append((path, got))
        except Exception as err:  # pragma: no cover - would be the failure
            errors.append(err)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(shared) <= 8
