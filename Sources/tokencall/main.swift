print("tokencall")
