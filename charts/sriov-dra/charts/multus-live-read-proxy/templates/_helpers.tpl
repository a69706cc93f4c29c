{{- /*
Names, labels and the image reference every template of this component uses. Named templates are global
across the umbrella chart and its subcharts, so each name carries the component's prefix.
*/}}

{{- /* The component's namespaced objects: fullnameOverride, or the component's own name. */}}
{{- define "multus-live-read-proxy.fullname" -}}
{{- .Values.fullnameOverride | default "multus-live-read-proxy" | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{- /*
A cluster-scoped object's name (ClusterRoles, their bindings, admission configuration): the release name in
front, so two releases never write the same object. Argument: (list . "suffix"), the suffix may be empty.
Not cut to 63 characters: these names are DNS subdomains (253), and a cut would give a long release's
objects one name. At most 53 (release) + 63 (fullname) + 20 (suffix) + 2 characters.
*/}}
{{- define "multus-live-read-proxy.clusterScopedName" -}}
{{- $root := index . 0 -}}
{{- $suffix := index . 1 -}}
{{- $name := printf "%s-%s" $root.Release.Name (include "multus-live-read-proxy.fullname" $root) -}}
{{- if $suffix }}{{ $name = printf "%s-%s" $name $suffix }}{{ end -}}
{{- $name -}}
{{- end }}

{{- /* Labels a Pod selector matches: stable for the life of the release. */}}
{{- define "multus-live-read-proxy.selectorLabels" -}}
app.kubernetes.io/name: multus-live-read-proxy
app.kubernetes.io/instance: {{ .Release.Name | quote }}
{{- end }}

{{- /* Labels on every object the component renders. */}}
{{- define "multus-live-read-proxy.labels" -}}
{{ include "multus-live-read-proxy.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: sriov-dra
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- /*
The image reference: [<registry>/]<repository>:<tag>[@<digest>]. global.imageRegistry replaces the
component's registry; an empty tag is the chart's appVersion.
*/}}
{{- define "multus-live-read-proxy.image" -}}
{{- $registry := (.Values.global | default dict).imageRegistry | default .Values.image.registry -}}
{{- $reference := printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- if $registry }}{{ $reference = printf "%s/%s" $registry $reference }}{{ end -}}
{{- if .Values.image.digest }}{{ $reference = printf "%s@%s" $reference .Values.image.digest }}{{ end -}}
{{- $reference -}}
{{- end }}

{{- /* The Pod's imagePullSecrets, as JSON: global.imagePullSecrets, then the component's own. */}}
{{- define "multus-live-read-proxy.imagePullSecrets" -}}
{{- concat ((.Values.global | default dict).imagePullSecrets | default list) .Values.imagePullSecrets | toJson -}}
{{- end }}
