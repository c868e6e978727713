/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package singleton

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Every runs pass at once and then every interval until ctx ends, logging a failed pass with
// failure as the message; a pass cut short by the end of ctx is not a failure.
func Every(ctx context.Context, interval time.Duration, failure string, pass func(context.Context) error) error {
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		if err := pass(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.FromContext(ctx).Error(err, failure)
		}
	}, interval)
	return nil
}
