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
	"fmt"
	"net/url"
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
var volumeSourceTypes = []string{kakaocloud.VolumeSourceImage, kakaocloud.VolumeSourceBlank, kakaocloud.VolumeSourceVolume}

// instanceTypes are the instance_type values the official SDK's enum allows, in filters of the
// flavor listing.
var instanceTypes = []string{"vm", "bm", "gpu"}

// validateVolumes checks a create's volumes as KakaoCloud's official tools describe them: at
// least the boot volume (SDK), each with a size in range and a known source type (SDK), a
// type_id when it is made from an image or blank (Terraform provider's documentation), and a
// uuid that names what it is made from. The first volume without a source type boots from the
// create's image_id, as the Terraform provider sends it; a later one is blank, the SDK's
// default after the first.
func (e *Emulator) validateVolumes(volumes []kakaocloud.VolumeSpec) error {
	if len(volumes) == 0 {
		return badRequest("instance.volumes is required: give the boot volume")
	}
	for i, volume := range volumes {
		field := fmt.Sprintf("instance.volumes[%d]", i)
		if volume.Size < minVolumeGiB || volume.Size > maxVolumeGiB {
			return badRequest("%s.size %d must be %d to %d (GiB)", field, volume.Size, minVolumeGiB, maxVolumeGiB)
		}
		source := volume.SourceType
		if source == "" && i > 0 {
			source = kakaocloud.VolumeSourceBlank
		}
		if source != "" && !slices.Contains(volumeSourceTypes, source) {
			return badRequest("%s.source_type %q must be one of %s", field, source, strings.Join(volumeSourceTypes, ", "))
		}
		if (source == kakaocloud.VolumeSourceImage || source == kakaocloud.VolumeSourceBlank) && volume.TypeID == "" {
			return badRequest("%s.type_id is required for source_type %s: give a volume type", field, source)
		}
		switch source {
		case kakaocloud.VolumeSourceImage:
			if _, ok := e.imagesByID[volume.UUID]; !ok {
				return badRequest("%s.uuid %q: no such image, which source_type image needs", field, volume.UUID)
			}
		case kakaocloud.VolumeSourceVolume:
			// The emulator keeps no volumes apart from its VMs', none of them detached.
			return badRequest("%s.uuid %q: no such volume, which source_type volume needs", field, volume.UUID)
		}
	}
	return nil
}

// validateInstanceType refuses an instance_type filter the official SDK's enum does not hold.
func validateInstanceType(query url.Values) error {
	if value := query.Get("instance_type"); value != "" && !slices.Contains(instanceTypes, value) {
		return badRequest("instance_type %q must be one of %s", value, strings.Join(instanceTypes, ", "))
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
