# hermes-gateway: one image for the gateway (`start`) and for scaled-out workers (`worker`).
FROM node:20-bookworm-slim

# better-sqlite3 compiles from source; ripgrep makes search_files fast; git/ssh/curl are common agent tools.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ripgrep git openssh-client curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY tsconfig.json ./

ENV HERMES_HOME=/data \
    HERMES_HTTP_HOST=0.0.0.0 \
    HERMES_HTTP_PORT=8642
# Owned by the runtime user before it becomes a volume: a named volume starts with this ownership,
# whereas a directory created by VOLUME alone is root's and the gateway could not write state.db.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
EXPOSE 8642
USER node
ENTRYPOINT ["node", "bin/hermes-gateway"]
CMD ["start"]
