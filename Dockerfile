# chronicle: one image for `chronicle serve` (both HTTP surfaces on the embedded LevelDB store).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY streams ./streams
COPY projections ./projections
COPY bench ./bench
COPY scripts ./scripts
RUN npm ci && npm prune --omit=dev

FROM node:20-bookworm-slim
# A compose for the stacks: Debian's docker-compose (Compose v1, 1.29.2), which talks to the engine of
# the mounted socket (/var/run/docker.sock, see docker-compose.yml) itself; chronicle finds it at start
# (`stacks compose: docker-compose 1.29.2 (v1, detected)`). Without a docker CLI in the image, compose
# builds with its own builder (COMPOSE_DOCKER_CLI_BUILD=0).
RUN apt-get update \
  && apt-get install -y --no-install-recommends docker-compose \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production CHRONICLE_DATA=/data COMPOSE_DOCKER_CLI_BUILD=0
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN ln -s /app/dist/src/cli/main.js /usr/local/bin/chronicle && mkdir -p /data
VOLUME ["/data"]
EXPOSE 5080 8765
# The stacks surface binds 0.0.0.0 here so the port mapping reaches it; the editor surface stays on
# loopback by contract (it is a local automation API).
CMD ["chronicle", "serve", "--data", "/data", "--stacks-host", "0.0.0.0"]
