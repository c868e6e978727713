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
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Path is where Handler answers.
const Path = "/explain/whatif"

// TokenHeader carries the caller's bearer token. The API server's service proxy, which callers
// come through, drops the Authorization header it authenticated them with.
const TokenHeader = "X-Karpenter-Authorization"

// maxManifest bounds a question's manifest.
const maxManifest = 1 << 20

// Questions are taken at most reviewRate a second, reviewBurst at once, before their token is
// reviewed: each review is two calls to the API server, which a flood of forged tokens would
// otherwise have the operator make on its behalf.
const (
	reviewRate  = 5
	reviewBurst = 10
)

// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Handler answers POST Path: the body is an edited NodePool or KCNodeClass, or a Pod (YAML or
// JSON); the answer is a WhatIfAnswer or a PodWhatIfAnswer in JSON, a metav1.Status on
// failure. The caller's token, in TokenHeader, must be one the API server accepts, of a user
// allowed to post to Path (a nonResourceURLs rule). One question is answered at a time.
type Handler struct {
	Explainer *Explainer
	// Reviewer creates the TokenReviews and SubjectAccessReviews.
	Reviewer client.Client
	busy     sync.Mutex

	reviewsOnce sync.Once
	reviews     *rate.Limiter
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method != http.MethodPost {
		fail(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "post the manifest to "+Path)
		return
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

// authorize reviews the caller's token and asks whether its user may post to Path: the user
// and http.StatusOK, or the status to answer and why.
func (h *Handler) authorize(r *http.Request) (string, int, string) {
	token, ok := strings.CutPrefix(r.Header.Get(TokenHeader), "Bearer ")
	if !ok || token == "" {
		return "", http.StatusUnauthorized, "no token: send one as " + TokenHeader + ": Bearer <token>"
	}
	review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}
	if err := h.Reviewer.Create(r.Context(), review); err != nil {
		return "", http.StatusInternalServerError, "reviewing the token: " + err.Error()
	}
	if !review.Status.Authenticated {
		return "", http.StatusUnauthorized, "the API server does not accept the token: " + review.Status.Error
	}
	userInfo := review.Status.User
	access := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: userInfo.Username, UID: userInfo.UID, Groups: userInfo.Groups,
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: Path, Verb: "post"},
	}}
	if len(userInfo.Extra) > 0 {
		access.Spec.Extra = make(map[string]authorizationv1.ExtraValue, len(userInfo.Extra))
		for k, v := range userInfo.Extra {
			access.Spec.Extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	if err := h.Reviewer.Create(r.Context(), access); err != nil {
		return "", http.StatusInternalServerError, "reviewing access: " + err.Error()
	}
	if !access.Status.Allowed {
		why := fmt.Sprintf("%s may not post to %s: bind it to the plugin's reader role", userInfo.Username, Path)
		if access.Status.Reason != "" {
			why += " (" + access.Status.Reason + ")"
		}
		return "", http.StatusForbidden, why
	}
	return userInfo.Username, http.StatusOK, ""
}

func reasonOf(code int) metav1.StatusReason {
	switch code {
	case http.StatusUnauthorized:
		return metav1.StatusReasonUnauthorized
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
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
