# karpenter-provider-kakaocloud

# Image URL to use all building/pushing image targets
IMG ?= karpenter-provider-kakaocloud:latest
VERSION ?= 0.1.0

# The Kubernetes version envtest, e2e and the local cluster run. Its binaries are built from
# the Go module proxy by hack/build-k8s-binaries.sh (release downloads are not available).
K8S_VERSION ?= 1.37.2

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

GOBIN ?= $(shell go env GOPATH)/bin
LOCALBIN ?= $(shell pwd)/bin
$(LOCALBIN):
	mkdir -p $(LOCALBIN)

## Tool versions
CONTROLLER_TOOLS_VERSION ?= v0.23.0
KUSTOMIZE_VERSION ?= v5.8.1
GINKGO_VERSION ?= v2.34.0

CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
KUSTOMIZE ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
GINKGO ?= $(LOCALBIN)/ginkgo-$(GINKGO_VERSION)
GOLANGCI_LINT_VERSION ?= v2.15.0
LOGCHECK_VERSION ?= v0.11.0
LOGCHECK ?= $(LOCALBIN)/logcheck-$(LOGCHECK_VERSION)
# Kube API Linter (the Kubernetes API conventions) has no release: a pseudo-version of its module,
# whose command is golangci-lint with the linter built in. One build of it, on
# GOLANGCI_LINT_VERSION and with UPSTREAM_GO, lints every module of the project: with
# .golangci.yml, it is golangci-lint; with .golangci-kal.yml, Kube API Linter. UPSTREAM_GO,
# because hack/conformance-upstream and hack/bench-upstream need upstream Karpenter's newer Go
# and a golangci-lint refuses modules whose Go is newer than its own.
KUBE_API_LINTER_VERSION ?= v0.0.0-20260716143926-092fe0c72997
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)-kal-$(KUBE_API_LINTER_VERSION)-$(UPSTREAM_GO)

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

# The operator's own packages: controller-gen would otherwise also load the project's other Go
# modules (hack/bench-upstream needs a newer Go than the operator).
GENERATE_PATHS = ./api/...;./internal/...;./cmd/...

# The chart cannot read files outside its directory: it ships copies of the CRDs and of the
# Grafana dashboards of config/grafana/dashboards, which verify diffs and hack/packaging checks.
.PHONY: manifests
manifests: controller-gen ## Generate CRDs, RBAC and webhook configuration from the Go markers.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd webhook paths="$(GENERATE_PATHS)" output:crd:artifacts:config=config/crd/bases
	go run ./hack/crdpatch config/crd/bases/*.yaml
	cp config/crd/bases/*.yaml charts/karpenter-provider-kakaocloud/crds/
	cp config/grafana/dashboards/*.json charts/karpenter-provider-kakaocloud/dashboards/

.PHONY: generate
generate: controller-gen ## Generate DeepCopy methods.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="$(GENERATE_PATHS)"

.PHONY: fmt
fmt: ## Run go fmt against code.
	go fmt ./...

.PHONY: vet
vet: ## Run go vet against code.
	go vet ./...

.PHONY: lint
lint: golangci-lint logcheck ## Run golangci-lint (.golangci.yml) on every Go module of the project, logcheck on the operator's code and Kube API Linter (.golangci-kal.yml) on the two CRD groups.
	$(GOLANGCI_LINT) run ./...
	cd hack/packaging && $(GOLANGCI_LINT) run --config ../../.golangci.yml ./...
	cd test/conformance && $(GOLANGCI_LINT) run --config ../../.golangci.yml ./...
	cd hack/conformance-upstream && GOTOOLCHAIN=$(UPSTREAM_GO) $(GOLANGCI_LINT) run --config ../../.golangci.yml ./...
	cd hack/bench-upstream && GOTOOLCHAIN=$(UPSTREAM_GO) $(GOLANGCI_LINT) run --config ../../.golangci.yml ./...
	$(LOGCHECK) -test=false ./...
	$(GOLANGCI_LINT) run --config .golangci-kal.yml ./api/kakaocloud/... ./api/karpenter/...

# The import graph test/layout holds the project to: packages, arrows, arrows that run up a
# tier, and arrows the layering rules forbid (test/layout/layers.go names tiers and rules).
.PHONY: import-graph
import-graph: ## Print the packages, import arrows, upward arrows and forbidden arrows of the project.
	go run ./test/layout/importgraph

.PHONY: verify
verify: manifests generate bundle ## Fail if generated files are not up to date.
	@git diff --exit-code -- api config bundle charts || { echo "generated files are stale: run 'make manifests generate bundle' and commit"; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

.PHONY: k8s-binaries
k8s-binaries: ## Build kube-apiserver, etcd, kubectl, kube-scheduler, kube-controller-manager and kwok (cached).
	K8S_VERSION=$(K8S_VERSION) hack/build-k8s-binaries.sh

.PHONY: olm-binaries
olm-binaries: ## Build OLM's olm and catalog operators and opm, with OLM's CRDs (cached).
	hack/build-olm-binaries.sh

.PHONY: test
test: verify vet lint k8s-binaries ## Vet, run unit and envtest suites against a real kube-apiserver and etcd, the kube-scheduler judge, the end-to-end suite, then a few of upstream Karpenter's e2e specs.
	KUBEBUILDER_ASSETS="$$(K8S_VERSION=$(K8S_VERSION) hack/build-k8s-binaries.sh | tail -n1)" \
		go test ./... -count=1 -coverprofile cover.out
	$(MAKE) bench-check
	FUZZTIME=$(FUZZ_TEST_TIME) hack/fuzz
	$(MAKE) test-packaging
	$(MAKE) conformance SEEDS=$(CONFORMANCE_TEST_SEEDS)
	K8S_VERSION=$(K8S_VERSION) hack/test-e2e
	$(MAKE) conformance-upstream-quick

# The kube-scheduler judge (test/conformance, its own Go module so that k8s.io/kubernetes stays
# out of the operator's): seeded random clusters and workloads, every placement the simulation
# decides replayed through the kube-scheduler's framework. make test runs a bounded number of
# seeds; make conformance SEEDS=5000 for long runs, SEED=N SEEDS=1 to reproduce one.
CONFORMANCE_TEST_SEEDS ?= 200
SEEDS ?= 1000
SEED ?= 1

# Fuzz targets: make test runs each for FUZZ_TEST_TIME; make fuzz FUZZTIME=10m for long runs,
# FUZZ=<regexp> to pick targets.
FUZZ_TEST_TIME ?= 5s
FUZZTIME ?= 1m
FUZZ ?= .

.PHONY: fuzz
fuzz: ## Run every fuzz target (or those matching FUZZ) for FUZZTIME each.
	FUZZTIME=$(FUZZTIME) hack/fuzz -run '$(FUZZ)'

.PHONY: conformance
conformance: ## Judge the scheduling simulation with the real kube-scheduler: SEEDS=N seeds from SEED.
	cd test/conformance && go vet ./... && go test ./... -count=1 -v -seed=$(SEED) -seeds=$(SEEDS) -run 'AgreesWithKubeScheduler' \
		| grep -E '^(=== RUN|--- |PASS|FAIL|ok)|_test.go:[0-9]+:'

# What users install, as the tools that install it read it (hack/packaging, its own Go
# module, so that Helm, operator-framework and Prometheus stay out of the operator's): the
# OLM bundle through operator-framework's validators, the Helm chart rendered and installed,
# upgraded, rolled back and uninstalled by the Helm SDK on a real API server, least privilege
# and hardening on every path, the alerts and the Grafana dashboards' queries through
# Prometheus' parser (each metric they read listed as served in docs/metrics.md), the OCI
# image writer.
.PHONY: test-packaging
test-packaging: kustomize k8s-binaries ## Validate the bundle, the chart, the overlays, the alerts, the dashboards and the images.
	cd hack/packaging && go vet ./... && \
		KUBEBUILDER_ASSETS="$$(K8S_VERSION=$(K8S_VERSION) $(CURDIR)/hack/build-k8s-binaries.sh | tail -n1)" go test ./... -count=1

.PHONY: test-e2e
test-e2e: k8s-binaries olm-binaries ## Run test/e2e on a local cluster: KUBECONFIG's if it is one (make local-up), else a new one, torn down after.
	K8S_VERSION=$(K8S_VERSION) hack/test-e2e

.PHONY: bench
bench: ## Run the benchmarks: scheduling simulation, requirements algebra, instance types, consolidation decisions, zone spread, the metrics' heap.
	go test ./internal/simulation/ -run='^$$' -bench='SchedulingDiverse(100|1000|5000)$$' -benchtime=3x -count=3
	go test ./internal/simulation/ -run='^$$' -bench='SchedulingDiverse20000|SchedulingKakaoCloud' -benchtime=1x -count=3
	go test ./internal/scheduling/ -run='^$$' -bench='Intersects|Compatible|Intersection' -benchtime=20000x
	go test ./internal/instancetype/ -run='^$$' -bench=BenchmarkList -benchtime=2000x -count=3
	go test ./internal/disruption/ -run='^$$' -bench='BenchmarkConsolidation1000|BenchmarkConsolidationNothingToDo1000|BenchmarkConsolidationTopology1000' -benchtime=3x -count=3
	go test ./internal/cloudprovider/kakao/ -run='^$$' -bench='ZoneSpread1000' -benchtime=3x -count=3
	go test ./internal/controller/metrics/node/ ./internal/controller/metrics/status/ -run='^$$' -bench='NodeMetrics500|StatusMetrics500' -benchtime=3x -count=3

# Consolidation at scale (workload.ConsolidationCluster: three NodePools, DaemonSets, PDBs, zone
# spreads and zonal anti-affinity, about 10 pods per node) at 1,000 and 5,000 nodes: the
# decision in memory, the controller's whole pass on a real API server filled with the cluster
# (minutes at 5,000 nodes), and the kube-scheduler judge of the commands it finds.
# Every in-memory benchmark once, so that make test sees one that no longer runs or whose
# output check fails; the figures of a single iteration mean nothing.
.PHONY: bench-check
bench-check: ## Run each in-memory benchmark once: it still runs and its output checks hold.
	go test ./internal/simulation/ ./internal/scheduling/ ./internal/instancetype/ ./internal/disruption/ -run='^$$' -benchtime=1x \
		-bench='SchedulingDiverse(100|1000)$$|SchedulingKakaoCloud1000|Intersects|Compatible|Intersection|BenchmarkList|Consolidation(1000|NothingToDo1000|Topology1000|Realistic1000)$$'
	go test ./internal/cloudprovider/kakao/ -run='^$$' -benchtime=1x -bench='ZoneSpread1000'
	go test ./internal/controller/metrics/node/ ./internal/controller/metrics/status/ -run='^$$' -benchtime=1x -bench='NodeMetrics500|StatusMetrics500'

.PHONY: bench-consolidation
bench-consolidation: k8s-binaries ## Time consolidation passes on 1,000 and 5,000 realistic nodes (in memory and on envtest) and judge their commands with the kube-scheduler.
	go test ./internal/disruption/ -run='^$$' -bench='ConsolidationRealistic(1000|5000)$$' -benchtime=3x \
		| grep -E '^(Benchmark|ok|FAIL|---)|_test.go:[0-9]+:'
	KUBEBUILDER_ASSETS="$$(K8S_VERSION=$(K8S_VERSION) hack/build-k8s-binaries.sh | tail -n1)" \
		go test ./internal/controller/disruption/ -run='^$$' -bench='ConsolidationPass(1000|5000)$$' -benchtime=1x -timeout=60m \
		| grep -E '^(Benchmark|ok|FAIL|---)|_test.go:[0-9]+:'
	cd test/conformance && for nodes in 1000 5000; do \
		go test ./... -count=1 -v -seed=$(SEED) -scale-nodes=$$nodes -run='ConsolidationAtScale' \
			| grep -E '^(--- |FAIL|ok)|_test.go:[0-9]+:'; \
	done

# Upstream Karpenter's kwok performance scenarios on the local cluster (test/e2e, label perf):
# 1,000 pods scale-out and consolidation to 700, the same with hostname spreading, drift of
# 600 pods; a table of times, the operator's peak RSS and CPU, KakaoCloud calls per launch and
# cost against the lower bound ends the output (docs/benchmarks.md).
.PHONY: perf
perf: k8s-binaries ## Run upstream's kwok performance scenarios on a local cluster and print their figures.
	E2E_TIMEOUT=150m K8S_VERSION=$(K8S_VERSION) hack/test-e2e -ginkgo.label-filter=perf

# Upstream Karpenter's performance suite (test/suites/performance) against this operator and
# against upstream's own kwok provider, one after the other on local clusters of their own, with
# the same instance types and prices; a table per scenario of ours, upstream's and the ratio
# (hack/perf-upstream/run; PERF_UPSTREAM_FOCUS picks specs: all of them take hours).
.PHONY: perf-upstream
perf-upstream: k8s-binaries ## Run upstream's performance suite against this operator and upstream's kwok provider; print ours, upstream's and the ratio.
	UPSTREAM_GO=$(UPSTREAM_GO) K8S_VERSION=$(K8S_VERSION) hack/perf-upstream/run

# Upstream Karpenter's own scheduling benchmark beside ours (hack/bench-upstream, its own Go
# module pinning sigs.k8s.io/karpenter; upstream needs a newer Go than the operator, and the Go
# module proxy serves that toolchain). Both are built by it and run interleaved.
BENCH_ROUNDS ?= 3
UPSTREAM_GO ?= go1.27.3

.PHONY: bench-upstream
bench-upstream: ## Run upstream Karpenter's BenchmarkScheduling{100,1000,5000} and ours interleaved; print pods/s, the ratio, nodes and cost.
	cd hack/bench-upstream && GOTOOLCHAIN=$(UPSTREAM_GO) go run . -rounds=$(BENCH_ROUNDS) -repo=$(CURDIR)

# Upstream Karpenter's own e2e suites, test/suites/regression and test/suites/disruption of
# sigs.k8s.io/karpenter (hack/conformance-upstream, its own Go module pinning the version, built
# with UPSTREAM_GO), against this operator on a fresh local cluster with our KCNodeClass: one
# line per spec, a summary, the skip list and its reasons in hack/conformance-upstream/skip.txt
# (docs/conformance.md). CONFORMANCE_FOCUS=<regexp> runs some of the specs.
.PHONY: conformance-upstream
conformance-upstream: k8s-binaries ## Run upstream Karpenter's regression and disruption e2e suites against this operator on a local cluster.
	UPSTREAM_GO=$(UPSTREAM_GO) K8S_VERSION=$(K8S_VERSION) hack/conformance-upstream/run

# The few of upstream's specs make test runs, listed with why in
# hack/conformance-upstream/quick.txt (a few minutes in all).
.PHONY: conformance-upstream-quick
conformance-upstream-quick: k8s-binaries ## Vet and test the upstream suites' runner, then run the specs of hack/conformance-upstream/quick.txt.
	cd hack/conformance-upstream && GOTOOLCHAIN=$(UPSTREAM_GO) go vet ./... && GOTOOLCHAIN=$(UPSTREAM_GO) go test ./... -count=1
	CONFORMANCE_ONLY=$(CURDIR)/hack/conformance-upstream/quick.txt UPSTREAM_GO=$(UPSTREAM_GO) K8S_VERSION=$(K8S_VERSION) hack/conformance-upstream/run

##@ Local cluster

.PHONY: demo
demo: ## The main job: a local cluster, the product documents' scenarios with a timeline, then tear down.
	K8S_VERSION=$(K8S_VERSION) hack/demo.sh

.PHONY: local-up
local-up: k8s-binaries ## Start a local cluster (control plane, kwok nodes, KakaoCloud emulator, this operator); prints export KUBECONFIG=...
	@K8S_VERSION=$(K8S_VERSION) hack/local-up

.PHONY: local-down
local-down: ## Stop the local cluster and remove its state.
	@hack/local-down

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary and the kubectl plugin (bin/kubectl-karpenter).
	go build -o bin/manager ./cmd
	go build -o bin/kubectl-karpenter ./cmd/kubectl-karpenter

# kubectl karpenter for krew: an archive per platform in dist/ and dist/karpenter.yaml, the
# manifest of hack/krew with this version's URLs and the archives' SHA-256 sums.
PLUGIN_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
.PHONY: plugin-dist
plugin-dist: ## Build kubectl-karpenter for each platform and its krew manifest (VERSION=vX.Y.Z).
	@test -n "$(VERSION)" || { echo "VERSION=vX.Y.Z is required"; exit 1; }
	mkdir -p dist
	cp hack/krew/karpenter.yaml dist/karpenter.yaml
	sed -i 's/VERSION/$(VERSION)/g' dist/karpenter.yaml
	for platform in $(PLUGIN_PLATFORMS); do \
		os=$${platform%/*}; arch=$${platform#*/}; dir=dist/kubectl-karpenter_$${os}_$${arch}; \
		mkdir -p $$dir; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags=-s -o $$dir/kubectl-karpenter ./cmd/kubectl-karpenter && \
		tar -C $$dir -czf $$dir.tar.gz . && \
		sed -i "s/SHA256_$${os}_$${arch}/$$(sha256sum $$dir.tar.gz | cut -d' ' -f1)/" dist/karpenter.yaml || exit 1; \
	done

.PHONY: run
run: manifests generate fmt vet ## Run the manager from your host against the current kubeconfig.
	ENABLE_WEBHOOKS=false go run ./cmd --leader-elect=false --metrics-bind-address=:8080 --metrics-secure=false $(ARGS)

# Images as OCI layouts, written by go-containerregistry (no container engine is needed):
# dist/image holds the controller image, dist/bundle-image the OLM bundle image. Load them
# with `skopeo copy oci:dist/image docker://<registry>/<name>:<tag>` or `crane push`.
.PHONY: image
image: ## Write the controller image (static manager, CA certificates, non-root) as an OCI layout in dist/image.
	mkdir -p dist
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags=-s -o dist/manager ./cmd
	cd hack/packaging && go run ./cmd/image --kind controller --binary ../../dist/manager --out ../../dist/image --ref $(IMG)

.PHONY: bundle-image
bundle-image: bundle ## Write the OLM bundle image as an OCI layout in dist/bundle-image.
	cd hack/packaging && go run ./cmd/image --kind bundle --bundle ../../bundle --labels ../../bundle/metadata/annotations.yaml --out ../../dist/bundle-image --ref $(BUNDLE_IMG)

.PHONY: docker-build
docker-build: ## Build the manager image (needs a container engine).
	docker build -t ${IMG} .

##@ OLM

# The bundle's own image reference for the controller, written into the CSV.
BUNDLE_IMG ?= karpenter-provider-kakaocloud-bundle:v$(VERSION)

.PHONY: bundle
bundle: manifests kustomize ## Write bundle/ (the OLM bundle) from config/manifests.
	$(KUSTOMIZE) build config/manifests | (cd hack/packaging && go run ./cmd/bundle --out ../../bundle --version $(VERSION) --image $(IMG))

##@ Deployment

.PHONY: build-installer
build-installer: manifests generate kustomize ## Write dist/install.yaml with the CRDs and the controller.
	mkdir -p dist
	cd config/manager && $(KUSTOMIZE) edit set image controller=${IMG}
	$(KUSTOMIZE) build config/default > dist/install.yaml

.PHONY: install
install: manifests kustomize ## Install CRDs into the cluster of the current kubeconfig.
	$(KUSTOMIZE) build config/crd | kubectl apply --server-side -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Uninstall CRDs from the cluster of the current kubeconfig.
	$(KUSTOMIZE) build config/crd | kubectl delete --ignore-not-found -f -

.PHONY: deploy
deploy: manifests kustomize ## Deploy the controller to the cluster of the current kubeconfig.
	cd config/manager && $(KUSTOMIZE) edit set image controller=${IMG}
	$(KUSTOMIZE) build config/default | kubectl apply --server-side -f -

.PHONY: undeploy
undeploy: kustomize ## Remove the controller (delete NodeClaims first, or VMs are left behind).
	$(KUSTOMIZE) build config/default | kubectl delete --ignore-not-found -f -

##@ Dependencies

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build controller-gen from its Go module.
$(CONTROLLER_GEN): | $(LOCALBIN)
	$(call go-install-tool,$(CONTROLLER_GEN),sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_TOOLS_VERSION))

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize from its Go module.
$(KUSTOMIZE): | $(LOCALBIN)
	$(call go-install-tool,$(KUSTOMIZE),sigs.k8s.io/kustomize/kustomize/v5,$(KUSTOMIZE_VERSION))

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint with Kube API Linter from their Go modules, with UPSTREAM_GO.
$(GOLANGCI_LINT): | $(LOCALBIN)
	TOOLCHAIN=$(UPSTREAM_GO) REQUIRE="github.com/golangci/golangci-lint/v2 $(GOLANGCI_LINT_VERSION)" hack/build-go-tool.sh $(GOLANGCI_LINT) sigs.k8s.io/kube-api-linter $(KUBE_API_LINTER_VERSION) sigs.k8s.io/kube-api-linter/cmd/golangci-lint-kube-api-linter

.PHONY: logcheck
logcheck: $(LOGCHECK) ## Build Kubernetes' logcheck (structured logging) from its Go module.
$(LOGCHECK): | $(LOCALBIN)
	hack/build-go-tool.sh $(LOGCHECK) sigs.k8s.io/logtools $(LOGCHECK_VERSION) sigs.k8s.io/logtools/logcheck

.PHONY: ginkgo
ginkgo: $(GINKGO) ## Build the ginkgo CLI from its Go module.
$(GINKGO): | $(LOCALBIN)
	$(call go-install-tool,$(GINKGO),github.com/onsi/ginkgo/v2/ginkgo,$(GINKGO_VERSION))

# go-install-tool installs a versioned Go tool into bin/ as <name>-<version>.
define go-install-tool
@[ -f "$(1)" ] || { \
set -e; \
package=$(2)@$(3) ;\
echo "Downloading $${package}" ;\
rm -f $(1) || true ;\
GOBIN=$(LOCALBIN) go install $${package} ;\
mv $(LOCALBIN)/$$(basename "$$(echo "$(2)" | sed "s/\/v[0-9]*$$//")") $(1) ;\
}
endef
