"""SQL types of the pipeline language: the type tree and its Spark DDL (`sql`), the parser of type strings (`parser`,
`tokens`), Kafka Connect's type names (`connect`) and field names compared as Spark compares them (`field_names`).
"""
