FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY server ./server
COPY client_cli ./client_cli
COPY migrations ./migrations
RUN pip install --no-cache-dir -e .
EXPOSE 8765
# Migrates to head on start, then serves; SAMEDEAL_DATABASE_URL picks the database.
CMD ["samedeal-server", "serve", "--host", "0.0.0.0", "--port", "8765"]
