# Sudija's image: `docker build -t sudija .` (or podman/buildah). docs/deploy.md, "The image", says how to run it;
# compose.yaml runs it with PostgreSQL. tests/test_image.py builds it and runs it where a container engine is.
# Any Debian-like image with python3 (and its venv module) will do: --build-arg PYTHON_IMAGE=… (tests/test_image.py).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# The build stage: a compiler for the double-dummy solver's C extension, and the install the README gives.
FROM ${PYTHON_IMAGE} AS build
RUN command -v gcc >/dev/null || { apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*; }
WORKDIR /src
COPY pyproject.toml setup.py requirements.lock README.md LICENSE ./
COPY deploy/install.sh deploy/install.sh
COPY bot bot
COPY rules rules
COPY storage storage
COPY packs packs
COPY examples examples
RUN PYTHON=python3 deploy/install.sh /opt/sudija

# The run stage: the interpreter and the built environment only; no compiler, no sources.
FROM ${PYTHON_IMAGE}
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/sudija --create-home --shell /usr/sbin/nologin sudija
COPY --from=build /opt/sudija /opt/sudija
COPY config.example.toml /etc/sudija/config.example.toml
COPY deploy/container.toml /etc/sudija/config.toml
ENV PATH=/opt/sudija/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
USER sudija
WORKDIR /var/lib/sudija
# SQLite clubs' databases and their backups live here; mount a volume.
VOLUME ["/var/lib/sudija"]
# /healthz and /metrics ([http] of the configuration; the image's own listens on all of the container's addresses).
EXPOSE 8711
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python3", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8711/healthz', timeout=4).status != 200)"]
CMD ["sudija", "run", "--config", "/etc/sudija/config.toml"]
