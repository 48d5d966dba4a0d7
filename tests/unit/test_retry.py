"""Retry policy: backoff with jitter, Retry-After in seconds or as an HTTP date, and the cap."""

from email.utils import formatdate

from looplab import retry
from looplab.models.errors import RETRY_STATUSES


def test_backoff_doubles_with_jitter_and_is_capped():
    low = [retry.backoff(n, rand=lambda: 0.0) for n in range(1, 7)]
    high = [retry.backoff(n, rand=lambda: 1.0) for n in range(1, 7)]
    assert high[:4] == [0.5, 1.0, 2.0, 4.0]
    assert low[:3] == [0.25, 0.5, 1.0]  # half the full delay at least: never zero
    assert max(high) == retry.MAX_DELAY and high[-1] == retry.MAX_DELAY
    assert all(lo < hi for lo, hi in zip(low, high))


def test_retry_after_in_seconds_and_as_a_date():
    assert retry.parse_retry_after("7") == 7.0
    assert retry.parse_retry_after(" 1.5 ") == 1.5
    assert retry.parse_retry_after("-3") == 0.0
    assert retry.parse_retry_after(None) is None
    assert retry.parse_retry_after("soon") is None
    now = 1_800_000_000.0
    assert retry.parse_retry_after(formatdate(now + 12, usegmt=True), now=now) == 12.0
    assert retry.parse_retry_after(formatdate(now - 60, usegmt=True), now=now) == 0.0


def test_retry_after_ms_wins_over_retry_after():
    assert retry.retry_after_of({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry.retry_after_of({"retry-after": "9"}) == 9.0
    assert retry.retry_after_of({}) is None


def test_wait_honours_retry_after_up_to_the_cap():
    assert retry.wait_before_retry(1, 3.0) == 3.0
    assert retry.wait_before_retry(1, retry.MAX_RETRY_AFTER + 1) is None  # too long: tell the learner
    assert 0.25 <= retry.wait_before_retry(1, None) <= 0.5


def test_which_statuses_are_retried():
    assert {408, 409, 429, 500, 502, 503, 504} <= RETRY_STATUSES
    assert not {400, 401, 403, 404, 422} & RETRY_STATUSES
