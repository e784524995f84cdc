# quizbot in a container. Secrets come from the environment (SLACK_*, DISCORD_TOKEN); a
# platform runs when its tokens are set. Alone, it keeps its SQLite file in the /data volume:
#   docker build -t quizbot . && docker run -d -v quizbot-data:/data -e DISCORD_TOKEN=... quizbot
# docker-compose.yaml adds PostgreSQL and mounts deploy/config.compose.toml.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# The shipped decks (questions/) are part of the package.
COPY pyproject.toml README.md LICENSE ./
COPY constraints.txt ./
COPY bot ./bot
COPY questions ./questions
# constraints.txt: discord.py, slack-bolt and slack-sdk at the versions the tests pass on.
RUN pip install -qq . -c constraints.txt && rm -rf /app/bot /app/questions \
    && useradd --system --home-dir /data --shell /usr/sbin/nologin quizbot \
    && mkdir -p /data/decks && chown -R quizbot:quizbot /data

# Without a config file the working folder holds the database (sqlite:///quizbot.db) and the
# team's decks (decks/), so it is the volume, owned by the container's user. A new volume gets
# /data/decks from the image; `quizbot db backup` copies the SQLite file (no sqlite3 here).
WORKDIR /data
VOLUME /data
USER quizbot
# Only Slack HTTP mode listens (3000); Socket Mode and Discord need no open port.
EXPOSE 3000
STOPSIGNAL SIGTERM
CMD ["quizbot", "run"]
