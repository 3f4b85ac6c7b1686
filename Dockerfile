# syntax=docker/dockerfile:1
# One image for every role of docker-compose.yml: `arbiter migrate`, `arbiter serve`, `arbiter worker`.
# The dependencies come from requirements.lock (exact versions, every hash checked; `make lock`
# writes it), Arbiter itself is installed as a built package (not editable), and it runs as a user
# of its own. docs/operations.md "Deploy" tells the rest.

# ---- build: a virtual environment with the locked dependencies and Arbiter, nothing else
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
RUN python -m venv /opt/arbiter
WORKDIR /src
COPY requirements.lock ./
RUN /opt/arbiter/bin/pip install --quiet --require-hashes --no-deps --requirement requirements.lock
COPY pyproject.toml README.md LICENSE ./
COPY app ./app
COPY workers ./workers
# the build backend is the locked setuptools; it leaves the environment once Arbiter is in
RUN /opt/arbiter/bin/pip install --quiet --no-deps --no-build-isolation . \
 && /opt/arbiter/bin/pip uninstall --quiet --yes setuptools

# ---- runtime: the environment, the migrations, and an unprivileged user
FROM python:3.11-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/arbiter/bin:$PATH \
    ARBITER_MIGRATIONS_DIR=/srv/arbiter/migrations
RUN groupadd --system --gid 10001 arbiter \
 && useradd --system --uid 10001 --gid arbiter --home-dir /srv/arbiter --shell /usr/sbin/nologin arbiter \
 && mkdir -p /srv/arbiter/data \
 && chown arbiter:arbiter /srv/arbiter/data
COPY --from=build /opt/arbiter /opt/arbiter
WORKDIR /srv/arbiter
COPY migrations ./migrations
USER 10001:10001
EXPOSE 8000
# the API's liveness; the worker's service overrides it (docker-compose.yml)
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 CMD ["arbiter", "healthcheck"]
CMD ["arbiter", "serve", "--host", "0.0.0.0", "--port", "8000"]
