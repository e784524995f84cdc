"""The store on SQLite: what differs from PostgreSQL, read alone (`dialect.Sqlite`).

SQLite has one writer, and the writer thread gives up the GIL on every step of every
statement, then waits for it back behind the event loop answering the clicks. So a
transaction's clicks are read with one statement and written with a statement each for all
of them (`click`), standings rows and cards are held back and written at the transaction's
end, a hundred rows a statement (`points`, `cards`), and these statements run on the
driver's own cursor with SQL compiled once (`compiled`).
"""
