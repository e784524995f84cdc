"""The store on PostgreSQL: what differs from SQLite, read alone (`dialect.Postgres`).

PostgreSQL writes beside other transactions (the group commit's lanes) and every statement
is a round trip, so a click is one statement (`click`: data-modifying CTEs), the rows a
transaction will write are locked as it reads them, and the statements are SQLAlchemy's.
"""
