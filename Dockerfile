# syntax=docker/dockerfile:1
# Hyperlocal service image: runs the TypeScript sources with tsx (`npm start`).

# --- dependencies: argon2 is compiled from source (its prebuilt binary is not used) ---
FROM node:20-bookworm-slim AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# package-lock.json is optional here so the image also builds before a lockfile exists. The client workspace's
# manifest comes along (npm links the workspace); its committed build arrives with the sources below.
COPY package.json package-lock.json* ./
COPY client/package.json client/
# `npm ci` fails against this project's registry (missing non-Linux optional packages): use `npm install`.
# argon2 is then rebuilt from source (node-gyp-build would otherwise load its bundled prebuilt binary),
# against the headers shipped in the node image (no header download).
RUN npm install --no-audit --no-fund \
 && npm_config_build_from_source=true npm_config_nodedir=/usr/local npm rebuild argon2 \
 && npm cache clean --force

# --- runtime: same base, no compilers ---
FROM node:20-bookworm-slim
# jemalloc instead of glibc's allocator, as sharp's documentation recommends for long-running processes that decode
# images on several threads: glibc kept what libvips' threads freed, and a flood of 20 photo uploads left the service
# 250-520 MB larger a minute later; with jemalloc 0-60 MB (docs/modules/media.md, "Memory after a flood"). The
# library's path has the architecture in it; the link gives LD_PRELOAD one path on every one.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libjemalloc2 \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "$(ls /usr/lib/*-linux-gnu/libjemalloc.so.2)" /usr/local/lib/libjemalloc.so.2
ENV NODE_ENV=production \
    PORT=8000 \
    DATA_DIR=/app/data \
    LD_PRELOAD=/usr/local/lib/libjemalloc.so.2
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --chown=node:node . .
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=40s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["npm", "start"]
