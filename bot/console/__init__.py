"""The terminal quiz: `quizbot play`."""
