# hermes-gateway: one image for the gateway (`start`) and for scaled-out workers (`worker`).

# Build stage: better-sqlite3 compiles from source, which needs python3, make and g++; the
# TypeScript compiler is a dev dependency. `npm ci` runs `prepare`, which compiles src/ to dist/;
# then the dev dependencies are pruned. None of the toolchain is needed to run, so it stays here.
FROM node:20-bookworm-slim AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm ci --no-audit --no-fund \
 && test -f dist/build-info.json \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# tini is PID 1: it reaps the orphans of commands the agent runs in the background (node would
# leave them as zombies) and passes SIGTERM/SIGINT on to the gateway. ripgrep makes search_files
# fast; git, ssh and curl are common agent tools.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ripgrep git openssh-client curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# The compiled build, and the sources it was made from: bin/hermes-gateway runs dist/ while the
# two match (it compares their content), and the sources through tsx otherwise.
COPY --from=deps /app/dist ./dist
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src

ENV HERMES_HOME=/data \
    HERMES_HTTP_HOST=0.0.0.0 \
    HERMES_HTTP_PORT=8642
# Owned by the runtime user before it becomes a volume: a named volume starts with this ownership,
# whereas a directory created by VOLUME alone is root's and the gateway could not write state.db.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
EXPOSE 8642
USER node
ENTRYPOINT ["tini", "--", "node", "bin/hermes-gateway"]
CMD ["start"]
