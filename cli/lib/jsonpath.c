/* jsonpath.c: values of json-c objects by '/'-separated key paths. */
#include "jsonpath.h"

#include <string.h>

json_object *json_at(json_object *obj, const char *path) {
  char key[128];
  while (obj && *path) {
    size_t len = strcspn(path, "/");
    if (len >= sizeof key || !json_object_is_type(obj, json_type_object))
      return NULL;
    memcpy(key, path, len);
    key[len] = '\0';
    if (!json_object_object_get_ex(obj, key, &obj))
      return NULL;
    path += len + (path[len] == '/');
  }
  return obj;
}

int json_number_at(json_object *obj, const char *path, double *out) {
  json_object *v = json_at(obj, path);
  if (!v || !(json_object_is_type(v, json_type_int) ||
              json_object_is_type(v, json_type_double)))
    return 0;
  *out = json_object_get_double(v);
  return 1;
}

double json_count_at(json_object *obj, const char *path) {
  double v = 0;
  json_number_at(obj, path, &v);
  return v;
}
