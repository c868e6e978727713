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

package bootstrap

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// APIServerURL is the https URL of the control plane endpoint KakaoCloud gives for the
// cluster. The host goes into the join script, which runs as root on every new VM, so it must
// be an IP address or a DNS name and nothing else: a value with a space, a quote, a `$`, a
// newline, a scheme or a path is refused here rather than trusted to the script's quoting.
func APIServerURL(endpoint kakaocloud.Endpoint) (string, error) {
	if endpoint.Port < 1 || endpoint.Port > 65535 {
		return "", fmt.Errorf("control plane endpoint %q port %d: not a port number (1 to 65535)", endpoint.Host, endpoint.Port)
	}
	host, err := canonicalHost(endpoint.Host)
	if err != nil {
		return "", fmt.Errorf("control plane endpoint %q: %w", endpoint.Host, err)
	}
	// JoinHostPort puts an IPv6 address in brackets, which https://%s:%d would not.
	return "https://" + net.JoinHostPort(host, strconv.Itoa(endpoint.Port)), nil
}

// canonicalHost is host as an IP address (an IPv6 one may come in brackets) or a DNS name in
// lower case.
func canonicalHost(host string) (string, error) {
	literal := host
	if inner, ok := strings.CutPrefix(host, "["); ok {
		literal, ok = strings.CutSuffix(inner, "]")
		if !ok {
			return "", fmt.Errorf("an unclosed bracket")
		}
	}
	if ip, err := netip.ParseAddr(literal); err == nil {
		// A zone names an interface of the machine that reads it, not of the new VM.
		if ip.Zone() != "" {
			return "", fmt.Errorf("an IP address with a zone")
		}
		return ip.String(), nil
	}
	if literal != host {
		return "", fmt.Errorf("brackets around something that is not an IPv6 address")
	}
	name := strings.ToLower(host)
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", fmt.Errorf("neither an IP address nor a DNS name: %s", strings.Join(errs, "; "))
	}
	return name, nil
}
