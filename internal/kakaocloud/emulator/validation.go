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
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// The limits KakaoCloud puts on an instance's fields, as the official Terraform provider
// validates them.
const (
	minInstanceNameLength   = 4
	maxInstanceNameLength   = 63
	maxDescriptionLength    = 100
	maxUserDataEncodedBytes = 16384
	// A volume's size in GiB, as the official SDK's model bounds it.
	minVolumeGiB = 1
	maxVolumeGiB = 16384
)

// volumeSourceTypes are the source_type values the official SDK's volume model allows.
var volumeSourceTypes = []string{"image", "blank", "volume"}

// validateVolumes checks a create's volumes as the official SDK's model requires them: at
// least the boot volume, each with a size in range and a known source type.
func validateVolumes(volumes []kakaocloud.VolumeSpec) error {
	if len(volumes) == 0 {
		return badRequest("instance.volumes is required: give the boot volume")
	}
	for i, volume := range volumes {
		if volume.Size < minVolumeGiB || volume.Size > maxVolumeGiB {
			return badRequest("instance.volumes[%d].size %d must be %d to %d (GiB)", i, volume.Size, minVolumeGiB, maxVolumeGiB)
		}
		if volume.SourceType != "" && !slices.Contains(volumeSourceTypes, volume.SourceType) {
			return badRequest("instance.volumes[%d].source_type %q must be one of %s", i, volume.SourceType, strings.Join(volumeSourceTypes, ", "))
		}
	}
	return nil
}

var instanceNamePattern = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]*[a-zA-Z0-9]$`)

// forbiddenNameSequences are separator pairs a name must not contain.
var forbiddenNameSequences = []string{"--", "__", "-_", "_-"}

// descriptionPunctuation is the punctuation a description may hold besides letters, digits,
// Hangul and spaces.
const descriptionPunctuation = `.,!?()[]{}:;"'@#%&*+=_/\|<>~-`

func validateInstanceName(name string) error {
	if name == "" {
		return badRequest("instance.name is required")
	}
	if n := utf8.RuneCountInString(name); n < minInstanceNameLength || n > maxInstanceNameLength {
		return badRequest("instance.name %q is %d characters long; it must be %d to %d", name, n, minInstanceNameLength, maxInstanceNameLength)
	}
	if !instanceNamePattern.MatchString(name) {
		return badRequest("instance.name %q must consist of letters, digits, '-' and '_', and start and end with a letter or digit", name)
	}
	for _, sequence := range forbiddenNameSequences {
		if strings.Contains(name, sequence) {
			return badRequest("instance.name %q must not contain %q", name, sequence)
		}
	}
	return nil
}

func validateDescription(description string) error {
	if n := utf8.RuneCountInString(description); n > maxDescriptionLength {
		return badRequest("instance.description is %d characters long; at most %d are allowed", n, maxDescriptionLength)
	}
	for _, r := range description {
		if !descriptionCharacterAllowed(r) {
			return badRequest("instance.description contains %q, which is not allowed; use letters, digits, Hangul, spaces and %s", r, descriptionPunctuation)
		}
	}
	return nil
}

func descriptionCharacterAllowed(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == ' ':
		return true
	case unicode.Is(unicode.Hangul, r):
		return true
	default:
		return strings.ContainsRune(descriptionPunctuation, r)
	}
}

// decodeUserData checks a create's base64 user data and returns it decoded.
func decodeUserData(userData string) (string, error) {
	if len(userData) > maxUserDataEncodedBytes {
		return "", badRequest("instance.user_data is %d bytes encoded; at most %d are allowed", len(userData), maxUserDataEncodedBytes)
	}
	decoded, err := base64.StdEncoding.DecodeString(userData)
	if err != nil {
		return "", badRequest("instance.user_data is not valid base64: %v", err)
	}
	return string(decoded), nil
}
