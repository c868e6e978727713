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
	"net/http"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// listImages serves the Image service's GET /api/v1/images with filters id, name (exact)
// and status.
func (e *Emulator) listImages(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	images, pagination, err := listPage(r.URL.Query(), e.catalog.Images, imageName,
		exact("id", func(img kakaocloud.Image) string { return img.ID }), exact("name", imageName),
		exact("status", func(img kakaocloud.Image) string { return img.Status }))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, kakaocloud.ListImagesResponse{Images: images, Pagination: pagination}, nil
}

func imageName(img kakaocloud.Image) string { return img.Name }

// getImage serves the Image service's GET /api/v1/images/{id}.
func (e *Emulator) getImage(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	id := r.PathValue("id")
	image, ok := findBy(e.catalog.Images, id, func(img kakaocloud.Image) string { return img.ID })
	if !ok {
		return 0, nil, notFound("image %q not found", id)
	}
	return http.StatusOK, kakaocloud.GetImageResponse{Image: image}, nil
}
