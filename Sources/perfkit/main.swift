import ArgumentParser

print("perfkit")
