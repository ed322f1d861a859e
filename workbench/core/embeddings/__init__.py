"""Word embeddings: word2vec and fastText training, evaluation, queries, maps, interchange."""
