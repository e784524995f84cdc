"""The metrics Prometheus scrapes: counts and a latency histogram, per platform."""

from bot.observability.metrics import Metrics


def sample(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.rsplit(" ", 1)[0] == name:
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in:\n{text}")


def test_clicks_answers_latency_and_errors() -> None:
    m = Metrics()
    m.click("slack", "new", 0.02, correct=True)
    m.click("slack", "new", 0.2, correct=False)
    m.click("slack", "duplicate", 0.01)
    m.error("discord", "click")
    text = m.exposition().decode()
    assert sample(text, 'quizbot_clicks_total{outcome="new",platform="slack"}') == 2
    assert sample(text, 'quizbot_clicks_total{outcome="duplicate",platform="slack"}') == 1
    assert sample(text, 'quizbot_answers_total{correct="true",platform="slack"}') == 1
    assert sample(text, 'quizbot_click_reply_seconds_bucket{le="0.025",platform="slack"}') == 2
    assert sample(text, 'quizbot_click_reply_seconds_count{platform="slack"}') == 3
    assert sample(text, 'quizbot_errors_total{platform="discord",where="click"}') == 1


def test_each_app_has_its_own_registry() -> None:
    a, b = Metrics(), Metrics()
    a.click("slack", "new", 0.1)
    assert 'quizbot_clicks_total{outcome="new",platform="slack"}' not in b.exposition().decode()
