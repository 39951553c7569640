# syntax=docker/dockerfile:1
#
# rag-eval, rag-seed and rag-snapshot in a small image (docs/release.md):
# static binaries (CGO off) on distroless/static, run as the non-root user
# nonroot (uid and gid 65532), no shell.
#
#   docker build --build-arg VERSION="$(git describe --tags --always --dirty)" -t ragbaseline .
#   docker run --rm -v "$PWD:/work" -u "$(id -u):$(id -g)" ragbaseline rag-eval --dir eval/rag-retrieval
#
# GO_VERSION is go.mod's toolchain line (a test keeps them equal).

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd/ cmd/
COPY internal/ internal/
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/ ./cmd/rag-eval ./cmd/rag-seed ./cmd/rag-snapshot

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ /usr/local/bin/
COPY README.md /usr/share/doc/ragbaseline/
# The embedded store writes .ragbaseline/ in the working directory: mount the
# repository there. The neural embedder's model: mount it and set RAG_MODEL_DIR.
WORKDIR /work
USER 65532:65532
CMD ["rag-eval", "--help"]
