# quizbot in a container. Config: mount a config.toml at /app/config.toml (see
# deploy/config.compose.toml); secrets come from the environment (SLACK_*, DISCORD_TOKEN).
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    QUIZBOT_CONFIG=/app/config.toml

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
RUN pip install . && useradd --system --home-dir /app --shell /usr/sbin/nologin quizbot \
    && mkdir -p /data && chown quizbot /data
COPY questions ./questions
COPY deploy/config.compose.toml ./config.toml

USER quizbot
# Slack HTTP mode listens here; Socket Mode and Discord need no open port.
EXPOSE 3000
STOPSIGNAL SIGTERM
CMD ["quizbot", "run"]
