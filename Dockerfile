FROM python:3.11-slim
WORKDIR /srv/arbiter
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md ./
COPY app ./app
COPY workers ./workers
COPY migrations ./migrations
RUN pip install --no-cache-dir -e .
EXPOSE 8000
CMD ["arbiter", "serve", "--host", "0.0.0.0", "--port", "8000"]
