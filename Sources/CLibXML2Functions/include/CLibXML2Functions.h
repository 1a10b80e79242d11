/* libxml2 is opened on first use; the functions are declared by libxml2's own headers (CLibXML2)
   and defined in libxml2_functions.c. This header is intentionally empty. */
