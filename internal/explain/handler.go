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

package explain

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/time/rate"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// The aggregated API whatif is served under. The API server authenticates and authorizes the
// user (create on whatifs) and passes the request on to the operator through its APIService,
// naming the user in front-proxy headers: the plugin sends the API server its kubeconfig's
// credential, as every kubectl request does, and nothing of it reaches the operator.
const (
	Group    = "explain.karpenter.kakaocloud.com"
	Version  = "v1alpha1"
	Resource = "whatifs"
	Kind     = "WhatIf"
	// APIServiceName is the APIService of every install path.
	APIServiceName = Version + "." + Group
	// GroupVersionPath answers discovery; Path takes the questions.
	GroupVersionPath = "/apis/" + Group + "/" + Version
	Path             = GroupVersionPath + "/" + Resource
)

// credentialHeaders are those a caller's credential would come in. The API server does not
// pass the Authorization it authenticated the user with on to an aggregated API; a request
// that carries one did not come the way whatif is asked, and is refused before it is read.
var credentialHeaders = []string{"Authorization", "X-Karpenter-Authorization"}

// maxManifest bounds a question's manifest.
const maxManifest = 1 << 20

// Questions are taken at most reviewRate a second, reviewBurst at once, before their user is
// reviewed: each review is a call to the API server, which a flood of questions would
// otherwise have the operator make on its behalf.
const (
	reviewRate  = 5
	reviewBurst = 10
)

// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Handler answers POST Path: the body is an edited NodePool or KCNodeClass, or a Pod (YAML or
// JSON); the answer is a WhatIfAnswer or a PodWhatIfAnswer in JSON, a metav1.Status on
// failure. The caller must be the API server, with a front-proxy client certificate that
// Authenticator accepts, asking for a user allowed to create whatifs. One question is answered
// at a time.
type Handler struct {
	Explainer *Explainer
	// Authenticator tells the user the API server asks for.
	Authenticator FrontProxyAuthenticator
	// Reviewer creates the SubjectAccessReviews.
	Reviewer client.Client
	busy     sync.Mutex

	reviewsOnce sync.Once
	reviews     *rate.Limiter
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method != http.MethodPost {
		fail(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "create a "+Kind+": post the manifest to "+Path)
		return
	}
	for _, header := range credentialHeaders {
		if r.Header.Get(header) != "" {
			fail(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf(
				"the operator takes no credential (header %s): ask through the API server, which tells the operator who asks, with kubectl karpenter whatif", header))
			return
		}
	}
	h.reviewsOnce.Do(func() { h.reviews = rate.NewLimiter(reviewRate, reviewBurst) })
	if !h.reviews.Allow() {
		w.Header().Set("Retry-After", "1")
		fail(w, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests,
			fmt.Sprintf("more than %d questions a second: ask again in a moment", reviewRate))
		return
	}
	user, code, why := h.authorize(r)
	if code != http.StatusOK {
		fail(w, code, reasonOf(code), why)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxManifest))
	if err != nil {
		fail(w, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge, fmt.Sprintf("the manifest must be at most %d bytes: %v", maxManifest, err))
		return
	}
	obj, err := Decode(body)
	if err != nil {
		fail(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return
	}
	// A simulation takes a core for a moment on a large cluster: questions wait their turn
	// rather than slow provisioning down.
	if !h.busy.TryLock() {
		w.Header().Set("Retry-After", "1")
		fail(w, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, "another question is being answered: ask again in a moment")
		return
	}
	defer h.busy.Unlock()
	var answer any
	if pod, ok := obj.(*corev1.Pod); ok {
		answer, err = h.Explainer.WhatIfPod(ctx, pod)
	} else {
		answer, err = h.Explainer.WhatIf(ctx, obj)
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, err.Error())
		return
	}
	log.FromContext(ctx).V(1).Info("answered whatif", "user", user, "kind", obj.GetObjectKind().GroupVersionKind().Kind, "object", klog.KObj(obj))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

// authorize takes the user the API server names and asks it whether that user may create
// whatifs: the user and http.StatusOK, or the status to answer and why. The API server
// authorized the request before passing it on; the operator asks again, as every aggregated
// API server does, so that a front-proxy certificate shared with another proxy grants nothing
// RBAC does not.
func (h *Handler) authorize(r *http.Request) (string, int, string) {
	if !h.Authenticator.Ready() {
		return "", http.StatusServiceUnavailable, "the operator does not know the API server's front-proxy CA yet: it reads it from ConfigMap " +
			AuthenticationConfigMapNamespace + "/" + AuthenticationConfigMapName + " (RoleBinding to Role extension-apiserver-authentication-reader in " +
			AuthenticationConfigMapNamespace + ")"
	}
	response, ok, err := h.Authenticator.AuthenticateRequest(r)
	switch {
	case err != nil:
		return "", http.StatusUnauthorized, "the caller is not the API server: " + err.Error()
	case !ok:
		return "", http.StatusUnauthorized, "the caller is not the API server: ask through it (kubectl karpenter whatif), which names the user with its front-proxy client certificate"
	}
	userInfo := response.User
	access := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: userInfo.GetName(), UID: userInfo.GetUID(), Groups: userInfo.GetGroups(),
		ResourceAttributes: &authorizationv1.ResourceAttributes{Group: Group, Version: Version, Resource: Resource, Verb: "create"},
	}}
	if extra := userInfo.GetExtra(); len(extra) > 0 {
		access.Spec.Extra = make(map[string]authorizationv1.ExtraValue, len(extra))
		for k, v := range extra {
			access.Spec.Extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	if err := h.Reviewer.Create(r.Context(), access); err != nil {
		return "", http.StatusInternalServerError, "reviewing access: " + err.Error()
	}
	if !access.Status.Allowed {
		why := fmt.Sprintf("%s may not create %s.%s: bind it to the plugin's reader role", userInfo.GetName(), Resource, Group)
		if access.Status.Reason != "" {
			why += " (" + access.Status.Reason + ")"
		}
		return "", http.StatusForbidden, why
	}
	return userInfo.GetName(), http.StatusOK, ""
}

func reasonOf(code int) metav1.StatusReason {
	switch code {
	case http.StatusUnauthorized:
		return metav1.StatusReasonUnauthorized
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	}
	return metav1.StatusReasonInternalError
}

// fail answers a metav1.Status, which kubectl's client reads as the error.
func fail(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(&metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: reason, Message: message,
	})
}

// ErrorOf reads a failed answer's message.
func ErrorOf(code int, body []byte) error {
	status := &metav1.Status{}
	if err := json.Unmarshal(body, status); err == nil && status.Message != "" {
		return fmt.Errorf("the operator answered %d: %s", code, status.Message)
	}
	return errors.New("the operator answered " + http.StatusText(code) + ": " + strings.TrimSpace(string(body)))
}
