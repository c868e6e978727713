// Copyright 2026 The karpenter-provider-kakaocloud Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package emulator

import (
	"cmp"
	"context"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Defaults of Options.
const (
	DefaultAccessKeyID     = "emulator-access-key"
	DefaultSecretAccessKey = "emulator-secret"
	DefaultTokenTTL        = 12 * time.Hour
	DefaultBuildDelay      = 2 * time.Second
	DefaultDeleteDelay     = 1 * time.Second
)

// advanceInterval is how often Start applies due transitions, so that OnInstanceActive hooks
// fire even when nobody polls.
const advanceInterval = 100 * time.Millisecond

// Clock tells the emulator the time. Instance lifecycles and token expiry are computed from
// it, so a test that steps a fake clock controls them without sleeping.
type Clock interface {
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Options configure an Emulator. Zero values mean the defaults.
type Options struct {
	// Catalog is what the cloud offers; nil means DefaultCatalog(). New copies it.
	Catalog *Catalog
	// Credentials maps access key ids to secrets; nil means one pair,
	// DefaultAccessKeyID / DefaultSecretAccessKey.
	Credentials map[string]string
	// TokenTTL is the lifetime of issued tokens.
	TokenTTL time.Duration
	// BuildDelay is how long an instance stays building before it is active (or error).
	BuildDelay time.Duration
	// DeleteDelay is how long an instance stays deleting before it is gone.
	DeleteDelay time.Duration
	// Clock is the emulator's time source; nil means real time.
	Clock Clock
	// Seed seeds the random choice of Fault.Fraction, so a test sees the same calls fail on
	// every run.
	Seed uint64
	// ListLag is how long a new instance stays out of ListInstances (see SetListLag).
	ListLag time.Duration
}

// Emulator is the emulated cloud: an http.Handler serving every service under a path prefix
// equal to its service name, plus the admin API under /_emulator/. It is safe for concurrent
// use.
type Emulator struct {
	clock       Clock
	tokenTTL    time.Duration
	buildDelay  time.Duration
	deleteDelay time.Duration
	mux         *http.ServeMux

	// Read-only after New: indexes over the catalog's immutable parts.
	flavorsByID          map[string]kakaocloud.Flavor
	imagesByID           map[string]kakaocloud.InstanceImage
	subnetsByID          map[string]kakaocloud.Subnet
	securityGroupsByName map[string]kakaocloud.SecurityGroup

	mu sync.Mutex
	// catalog is the emulator's own copy; its versions and cluster change through the admin
	// API, everything else stays as loaded.
	catalog           *Catalog
	credentials       map[string]string
	tokens            map[string]issuedToken
	instances         []*instance           // in creation order, which is also created_at order
	lastAddress       map[string]netip.Addr // by subnet ID: the private IP given last
	faults            map[string]*activeFault
	latencies         map[string]time.Duration
	listLag           time.Duration
	created           int
	calls             map[string]int
	injected          map[string]int
	capacity          map[capacityKey]int
	failNextCount     int
	failNextMessage   string
	nodeImagesFailing bool
	activeHooks       []func(kakaocloud.Instance)
	rng               *rand.Rand
}

// New returns an emulator serving opts.Catalog. It panics if the catalog is invalid (see
// Catalog.Validate), which is a programming error in the test or tool that builds it.
func New(opts Options) *Emulator {
	catalog := opts.Catalog
	if catalog == nil {
		catalog = DefaultCatalog()
	}
	catalog = catalog.clone()
	catalog.fillDefaults()
	if err := catalog.Validate(); err != nil {
		panic("emulator: invalid catalog: " + err.Error())
	}
	credentials := map[string]string{DefaultAccessKeyID: DefaultSecretAccessKey}
	if opts.Credentials != nil {
		credentials = maps.Clone(opts.Credentials)
	}
	e := &Emulator{
		clock:       opts.Clock,
		tokenTTL:    cmp.Or(opts.TokenTTL, DefaultTokenTTL),
		buildDelay:  cmp.Or(opts.BuildDelay, DefaultBuildDelay),
		deleteDelay: cmp.Or(opts.DeleteDelay, DefaultDeleteDelay),
		catalog:     catalog,
		credentials: credentials,
		tokens:      map[string]issuedToken{},
		lastAddress: map[string]netip.Addr{},
		faults:      map[string]*activeFault{},
		latencies:   map[string]time.Duration{},
		calls:       map[string]int{},
		injected:    map[string]int{},
		capacity:    map[capacityKey]int{},
		rng:         rand.New(rand.NewPCG(opts.Seed, opts.Seed)),
		listLag:     max(opts.ListLag, 0),
	}
	if e.clock == nil {
		e.clock = realClock{}
	}
	e.indexCatalog()
	e.routes()
	return e
}

func (e *Emulator) indexCatalog() {
	c := e.catalog
	e.flavorsByID = make(map[string]kakaocloud.Flavor, len(c.Flavors))
	for _, f := range c.Flavors {
		e.flavorsByID[f.ID] = f
	}
	// A VM may boot from an Image-service image or a Kubernetes Engine node image.
	e.imagesByID = make(map[string]kakaocloud.InstanceImage, len(c.Images)+len(c.NodeImages))
	for _, img := range c.Images {
		e.imagesByID[img.ID] = kakaocloud.InstanceImage{ID: img.ID, Name: img.Name, OSArchitecture: img.OSInfo.Architecture}
	}
	for _, img := range c.NodeImages {
		if _, ok := e.imagesByID[img.ID]; !ok {
			e.imagesByID[img.ID] = kakaocloud.InstanceImage{ID: img.ID, Name: img.Name, OSArchitecture: img.Architecture}
		}
	}
	e.subnetsByID = make(map[string]kakaocloud.Subnet, len(c.Subnets))
	for _, s := range c.Subnets {
		e.subnetsByID[s.ID] = s
	}
	e.securityGroupsByName = make(map[string]kakaocloud.SecurityGroup, len(c.SecurityGroups))
	for _, sg := range c.SecurityGroups {
		e.securityGroupsByName[sg.Name] = sg
	}
}

// now is the emulator's time in UTC, the zone every timestamp on the wire uses.
func (e *Emulator) now() time.Time {
	return e.clock.Now().UTC()
}

// Endpoints returns the per-service base URLs of an emulator served at baseURL, keyed by the
// kakaocloud.Service* names: the client's configuration.
func (e *Emulator) Endpoints(baseURL string) map[string]string {
	baseURL = strings.TrimSuffix(baseURL, "/")
	endpoints := make(map[string]string, len(kakaocloud.Services))
	for _, service := range kakaocloud.Services {
		endpoints[service] = baseURL + "/" + service
	}
	return endpoints
}

// ServeHTTP serves the cloud APIs and the admin API. Every request first applies the
// lifecycle transitions due by the clock, so what it reads or changes is current.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.advance()
	e.mux.ServeHTTP(w, r)
}

// Start applies due lifecycle transitions every 100ms of real time until ctx is done, so
// that OnInstanceActive hooks fire without a request. It returns at once.
func (e *Emulator) Start(ctx context.Context) {
	go wait.UntilWithContext(ctx, func(context.Context) { e.advance() }, advanceInterval)
}

// OnInstanceActive registers a hook called once per instance when it becomes active, with a
// snapshot of it. Hooks run outside the emulator's lock (they may call the emulator), on
// whichever goroutine applied the transition, so two hooks may run concurrently.
func (e *Emulator) OnInstanceActive(hook func(kakaocloud.Instance)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.activeHooks = append(e.activeHooks, hook)
}

// advance applies every transition that is due by the clock, then calls the hooks of the
// instances that became active.
func (e *Emulator) advance() {
	e.mu.Lock()
	activated := e.applyDueTransitionsLocked()
	hooks := slices.Clone(e.activeHooks)
	e.mu.Unlock()
	for _, inst := range activated {
		for _, hook := range hooks {
			hook(inst)
		}
	}
}
